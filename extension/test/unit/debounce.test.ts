import assert from "node:assert/strict";
import { mock, test } from "node:test";
import { debounce } from "../../debounce";

test("a burst runs once, after the wait, with the last arguments", () => {
	mock.timers.enable({ apis: ["setTimeout"] });
	try {
		const calls: number[] = [];
		const d = debounce((n: number) => calls.push(n), 100);
		d(1);
		mock.timers.tick(50);
		d(2);
		mock.timers.tick(99);
		assert.deepEqual(calls, []);
		mock.timers.tick(1);
		assert.deepEqual(calls, [2]);
		d(3);
		d.cancel();
		mock.timers.tick(500);
		assert.deepEqual(calls, [2]);
	} finally {
		mock.timers.reset();
	}
});
