/** Every method's view of its run records (its `.view.tsx`), in the order the run and compare pages draw them. */
import { needleView } from './needle.view';
import { negativeSamplingView } from './negativeSampling.view';
import { puView } from './pu.view';
import { rosterView } from './roster.view';
import type { MethodView } from './view';

export const METHOD_VIEWS: readonly MethodView[] = [needleView, puView, rosterView, negativeSamplingView];
