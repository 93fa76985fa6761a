/*
 * phpcmp's page: a hash-routed client of the JSON API (docs/api.md), as ES
 * modules served as plain files (no bundler).  The entry point: the routes,
 * the header's daemon status, and the start.
 *
 *   #/                     overview: builds, runs, open buckets, the latest measurement
 *   #/new                  submit a case (?from=ID prefills from a stored case)
 *   #/cases/ID             one case, every build's result side by side, its bucket,
 *                          exports (?comparison=ID shows an earlier comparison)
 *   #/runs/ID              one run: progress, counts, buckets, report and coverage (?verdict=)
 *   #/runs/ID/counts       instruction counts (?threshold=&show=significant|regressions|all
 *                          &sort=title|base|head|delta&dir=asc|desc&workload=FILE)
 *   #/buckets              triage: every bucket (?state=open|new|...|reappeared&run=ID)
 *   #/buckets/ID           one bucket: its key, triage form, audit trail, a representative diff
 *   #/workloads?source=F   one workload's instruction counts across runs
 *
 * Libraries from npm (package.json), served by the daemon under /vendor/
 * as classic scripts and read as globals: `Diff` (jsdiff) for byte-level
 * diffs, `uPlot` for history charts.  The page works without them (one
 * highlight per difference, tables instead of charts).
 */
import { h, replace } from './dom.js';
import { start } from './router.js';
import { onHealth, refreshHealth } from './session.js';
import { routes } from './routes.js';

/* The header: how many workers are up. */
const daemonStatus = document.getElementById('daemon-status');
onHealth((d) => {
	if (!d) {
		replace(daemonStatus, [h('span', { class: 'dot bad', 'aria-hidden': 'true' }), 'daemon unreachable']);
		return;
	}
	const builds = d.builds || [];
	const ready = builds.filter((b) => b.worker && (b.worker.state === 'ready' || b.worker.state === 'busy')).length;
	replace(daemonStatus, [
		h('span', { class: `dot ${ready === builds.length ? 'ok' : 'warn'}`, 'aria-hidden': 'true' }),
		`daemon ${d.version || ''} · ${ready}/${builds.length} workers up`,
	]);
});

refreshHealth().catch(() => {});
setInterval(() => refreshHealth().catch(() => {}), 15000);
start(routes, document.getElementById('main'));
