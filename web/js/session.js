/*
 * Lookups shared by the views and cached for the page's life: the flag
 * list (/api/flags) and the latest /api/health answer.
 */
import { api } from './api.js';
import { flagNames as namesOf, flagsText as textOf } from './format.js';

let flagsList = null;

export async function getFlags() {
	if (!flagsList) flagsList = (await api('/api/flags')).flags || [];
	return flagsList;
}

/* With the cached list (null before getFlags has answered). */
export const flagNames = (value) => namesOf(value, flagsList);
export const flagsText = (value, names) => textOf(value, names, flagsList);

let health = null;
const listeners = [];

/* fn(health, null) after every answer of refreshHealth, fn(null, error) after a failure. */
export function onHealth(fn) {
	listeners.push(fn);
}

export async function refreshHealth() {
	let d;
	try {
		d = await api('/api/health');
	} catch (e) {
		for (const fn of listeners) fn(null, e);
		throw e;
	}
	health = d;
	for (const fn of listeners) fn(d, null);
	return d;
}

export const haveHealth = () => health !== null;

/* A build from /api/health by role (base/head, how results are keyed) or name. */
export function buildInfo(key) {
	if (!health || !health.builds) return null;
	return health.builds.find((b) => b.role === key) || health.builds.find((b) => b.name === key) || null;
}
