import { create } from 'zustand';
import type { Split } from '../core/types';

/** UI state only: choices a person makes while looking. Stored data lives in Dexie. */
interface UiState {
  /** Per project, the label layer shown in the document view. */
  layerByProject: Record<number, number | undefined>;
  splitFilter: Split | 'all';
  setLayer: (projectId: number, layerId: number) => void;
  setSplitFilter: (s: Split | 'all') => void;
}

export const useUi = create<UiState>((set) => ({
  layerByProject: {},
  splitFilter: 'all',
  setLayer: (projectId, layerId) => set((s) => ({ layerByProject: { ...s.layerByProject, [projectId]: layerId } })),
  setSplitFilter: (splitFilter) => set({ splitFilter }),
}));
