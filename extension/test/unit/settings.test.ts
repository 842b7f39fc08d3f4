import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultSettings, needsRestart, serverArgs, serverSettings, type SettingReader } from "../../settings";

function reader(values: Record<string, unknown>): SettingReader {
	return <T>(key: string, fallback: T): T => (key in values ? (values[key] as T) : fallback);
}

test("no settings: the server's defaults", () => {
	assert.deepEqual(serverSettings(reader({})), defaultSettings);
});

test("settings are read, nested triggers included", () => {
	const s = serverSettings(
		reader({ maxTokens: 2000, minRelevance: 0.25, "triggers.selection": false, logLevel: "debug", enabled: false }),
	);
	assert.equal(s.maxTokens, 2000);
	assert.equal(s.minRelevance, 0.25);
	assert.equal(s.triggers.selection, false);
	assert.equal(s.triggers.fileOpen, true);
	assert.equal(s.logLevel, "debug");
	assert.equal(s.enabled, false);
});

test("wrong types and out-of-range values fall back to the defaults", () => {
	const cases: [string, Record<string, unknown>, (s: ReturnType<typeof serverSettings>) => unknown, unknown][] = [
		["maxTokens as a string", { maxTokens: "4000" }, (s) => s.maxTokens, 4000],
		["negative maxTokens", { maxTokens: -5 }, (s) => s.maxTokens, 4000],
		["NaN minRelevance", { minRelevance: Number.NaN }, (s) => s.minRelevance, 0.5],
		["minRelevance above 1", { minRelevance: 3 }, (s) => s.minRelevance, 0.5],
		["unknown log level", { logLevel: "trace" }, (s) => s.logLevel, "info"],
		["enabled as a string", { enabled: "false" }, (s) => s.enabled, true],
		["fractional maxTokens is rounded", { maxTokens: 1500.6 }, (s) => s.maxTokens, 1501],
	];
	for (const [name, values, pick, want] of cases) {
		assert.equal(pick(serverSettings(reader(values))), want, name);
	}
});

test("serverArgs: serve with the log level, logging to stderr (the output channel)", () => {
	assert.deepEqual(serverArgs({ ...defaultSettings, logLevel: "warn" }), [
		"serve",
		"--log-level",
		"warn",
	]);
});

test("only a log level change needs a new process", () => {
	assert.equal(needsRestart(defaultSettings, { ...defaultSettings, maxTokens: 100 }), false);
	assert.equal(needsRestart(defaultSettings, { ...defaultSettings, logLevel: "debug" }), true);
});
