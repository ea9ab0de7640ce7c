// Preloaded into the many-orgs scenario's servers (node --expose-gc --require): SIGUSR2 runs a
// full garbage collection, so that the heap read from /metrics just after is what the process
// retains, not whatever garbage the last phase left for a later collection. The server's own code
// is unchanged; nothing else in the bench or in production sends it this signal.
'use strict';
if (typeof global.gc === 'function') {
  process.on('SIGUSR2', () => {
    global.gc();
    global.gc();
  });
}
