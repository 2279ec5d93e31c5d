/**
 * Export a chart as PNG or SVG, in the browser (nothing leaves the machine): uPlot draws on a
 * canvas, exported as PNG; an SVG chart is exported as the SVG itself or rasterized to PNG.
 */
import type { RefObject } from 'react';
import { download, toCsv } from '../hooks';

function svgText(svg: SVGSVGElement): string {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  // The element's own namespace, so the file opens as SVG outside the page.
  copy.setAttribute('xmlns', svg.namespaceURI ?? '');
  return new XMLSerializer().serializeToString(copy);
}

export async function exportChart(box: HTMLElement, name: string, format: 'png' | 'svg'): Promise<void> {
  const svg = box.querySelector('svg');
  const canvas = box.querySelector('canvas');
  if (format === 'svg') {
    if (!svg) throw new Error('this chart is drawn on a canvas: export it as PNG');
    return download(`${name}.svg`, new Blob([svgText(svg)], { type: 'image/svg+xml' }));
  }
  if (canvas) return new Promise((r) => canvas.toBlob((b) => (b && download(`${name}.png`, b), r())));
  if (!svg) throw new Error('nothing to export');
  const { width, height } = svg.getBoundingClientRect();
  const img = new Image();
  img.src = URL.createObjectURL(new Blob([svgText(svg)], { type: 'image/svg+xml' }));
  await img.decode();
  const c = document.createElement('canvas');
  c.width = Math.ceil(width * 2);
  c.height = Math.ceil(height * 2);
  const ctx = c.getContext('2d')!;
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, c.width, c.height);
  ctx.drawImage(img, 0, 0, c.width, c.height);
  URL.revokeObjectURL(img.src);
  return new Promise((r) => c.toBlob((b) => (b && download(`${name}.png`, b), r())));
}

export function ExportButtons({ target, name, svg = false }: { target: RefObject<HTMLElement | null>; name: string; svg?: boolean }) {
  const go = (f: 'png' | 'svg') => target.current && void exportChart(target.current, name, f);
  return (
    <span className="row export">
      <button type="button" className="link" onClick={() => go('png')} aria-label={`Export ${name} as PNG`}>
        PNG
      </button>
      {svg && (
        <button type="button" className="link" onClick={() => go('svg')} aria-label={`Export ${name} as SVG`}>
          SVG
        </button>
      )}
    </span>
  );
}

/** A table's cells as CSV, as shown (for tables whose rows are what the view computed). */
export function tableCsv(table: HTMLTableElement): string {
  return toCsv([...table.rows].map((r) => [...r.cells].map((c) => (c.textContent ?? '').trim())));
}

export function CsvButton({ target, name }: { target: RefObject<HTMLElement | null>; name: string }) {
  const go = () => {
    const table = target.current?.matches('table') ? (target.current as HTMLTableElement) : target.current?.querySelector('table');
    if (table) download(`${name}.csv`, new Blob([tableCsv(table)], { type: 'text/csv' }));
  };
  return (
    <button type="button" className="link" onClick={go} aria-label={`Export ${name} as CSV`}>
      CSV
    </button>
  );
}
