// Every method module registers itself on import.
import './supervised';
export { getMethod, listMethods } from './registry';
