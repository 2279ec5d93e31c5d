// Every method module registers its losses and its pipeline on import.
import './supervised';
import './weak';
import './negativeSampling';
import './pu';
import './roster';
import './needle';
import './sst';
import './completion';
import './bond';
import './decoupled';
export { getMethod, getPipeline } from './registry';
