// The one atomic writer lives at the I/O edge (src-main/node/atomic-write.ts).
export { writeFileAtomic, writeJsonAtomic } from '../node/atomic-write.js';
