// Every method module registers itself on import.
import './supervised';
import './weak';
import './negativeSampling';
export { getMethod, listMethods } from './registry';
