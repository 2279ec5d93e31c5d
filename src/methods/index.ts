// Every method module registers itself on import.
import './supervised';
import './weak';
export { getMethod, listMethods } from './registry';
