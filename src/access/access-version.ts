/** Moved by every change to who may do what; the store keeps it (store/access.ts says when). */
export { bumpAccessVersion } from '../store/access';
