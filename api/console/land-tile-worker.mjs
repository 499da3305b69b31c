// Entry of the land tile worker thread (api/console/land-tiles.ts). The service runs its TypeScript sources
// through tsx, whose loader a worker thread does not inherit: it is registered here before the worker's
// module loads.
import { register } from 'tsx/esm/api';

register();
await import('./land-tile-worker.ts');
