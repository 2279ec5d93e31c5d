// Every method module registers itself on import.
import './supervised';
import './weak';
import './negativeSampling';
import './pu';
export { getMethod } from './registry';
