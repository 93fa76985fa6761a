/*
 * The page's routes: one row per view.  Importing this touches no DOM
 * (tests/web/router.test.mjs matches paths against it).
 */
import { overviewView } from './views/overview.js';
import { submitView } from './views/new.js';
import { caseView } from './views/case.js';
import { runView } from './views/run.js';
import { instructionsView } from './views/counts.js';
import { bucketsView } from './views/buckets.js';
import { bucketView } from './views/bucket.js';
import { workloadView } from './views/workload.js';
import { functionsView } from './views/functions.js';
import { reviewsView, reviewView } from './views/reviews.js';

/* Path patterns (the hash without its query) and their views; the first match wins. */
export const routes = [
	{ re: /^\/?$/, name: 'overview', view: overviewView },
	{ re: /^\/new$/, name: 'new', view: submitView },
	{ re: /^\/cases\/(\d+)$/, name: 'case', view: caseView },
	{ re: /^\/runs\/(\d+)$/, name: 'run', view: runView },
	{ re: /^\/runs\/(\d+)\/counts$/, name: 'counts', view: instructionsView },
	{ re: /^\/buckets$/, name: 'buckets', view: bucketsView },
	{ re: /^\/buckets\/(\d+)$/, name: 'bucket', view: bucketView },
	{ re: /^\/workloads$/, name: 'workload', view: workloadView },
	{ re: /^\/comparisons\/(\d+)\/functions$/, name: 'functions', view: functionsView },
	{ re: /^\/reviews$/, name: 'reviews', view: reviewsView },
	{ re: /^\/reviews\/(\d+)$/, name: 'review', view: reviewView },
];
