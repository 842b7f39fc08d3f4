import assert from "node:assert/strict";
import * as fs from "node:fs";
import { test } from "node:test";
import { ServerCommand } from "../../protocol";
import { defaultSettings } from "../../settings";

interface Manifest {
	contributes: {
		commands: { command: string }[];
		configuration: { properties: Record<string, { default: unknown }> };
	};
	capabilities: { untrustedWorkspaces: { supported: unknown; restrictedConfigurations: string[] } };
}

const manifest = JSON.parse(fs.readFileSync("package.json", "utf8")) as Manifest;

test("no palette command shares an id with a server command (the client registers those itself)", () => {
	const server = new Set<string>(Object.values(ServerCommand));
	for (const { command } of manifest.contributes.commands) {
		assert.ok(!server.has(command), `${command} collides with the server's executeCommand`);
	}
});

test("every contributed command is registered by commands.ts", () => {
	const source = fs.readFileSync("extension/commands.ts", "utf8");
	for (const { command } of manifest.contributes.commands) {
		assert.ok(source.includes(`cmd("${command}"`), `${command} is contributed but not registered`);
	}
});

test("the manifest's setting defaults are the server settings' defaults", () => {
	const p = manifest.contributes.configuration.properties;
	const flat: Record<string, unknown> = {
		"ctxls.enabled": defaultSettings.enabled,
		"ctxls.maxTokens": defaultSettings.maxTokens,
		"ctxls.minRelevance": defaultSettings.minRelevance,
		"ctxls.logLevel": defaultSettings.logLevel,
	};
	for (const [k, v] of Object.entries(defaultSettings.triggers)) {
		flat[`ctxls.triggers.${k}`] = v;
	}
	for (const [key, want] of Object.entries(flat)) {
		assert.equal(p[key]?.default, want, key);
	}
});

test("in an untrusted workspace the binary path cannot come from the workspace", () => {
	assert.equal(manifest.capabilities.untrustedWorkspaces.supported, "limited");
	assert.deepEqual(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations, ["ctxls.binaryPath"]);
});
