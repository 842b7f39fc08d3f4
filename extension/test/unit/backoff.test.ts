import assert from "node:assert/strict";
import { test } from "node:test";
import { RestartPolicy } from "../../backoff";

test("quick deaths double the delay up to the cap", () => {
	const p = new RestartPolicy({ initialDelay: 1000, maxDelay: 5000, stableAfter: 60_000 });
	const delays: number[] = [];
	let now = 0;
	for (let i = 0; i < 5; i++) {
		p.started(now);
		now += 10;
		const d = p.died(now);
		delays.push(d);
		now += d;
	}
	assert.deepEqual(delays, [1000, 2000, 4000, 5000, 5000]);
});

test("a long run resets the backoff", () => {
	const p = new RestartPolicy({ initialDelay: 1000, maxDelay: 60_000, stableAfter: 60_000 });
	p.started(0);
	p.died(1);
	p.started(1000);
	assert.equal(p.died(1001), 2000);
	p.started(3000);
	assert.equal(p.died(3000 + 60_000), 1000);
});

test("the person is told once", () => {
	const p = new RestartPolicy();
	assert.deepEqual([p.shouldTell(), p.shouldTell(), p.shouldTell()], [true, false, false]);
});
