// When to restart a server that died.

/** Options of a RestartPolicy; all durations in milliseconds. */
export interface BackoffOptions {
	initialDelay: number;
	maxDelay: number;
	/** A server that ran this long before dying starts the backoff again from initialDelay. */
	stableAfter: number;
}

/** The defaults: 1 s, doubling, at most 60 s; a run of 2 minutes resets it. */
export const defaultBackoff: BackoffOptions = { initialDelay: 1000, maxDelay: 60_000, stableAfter: 120_000 };

/**
 * RestartPolicy computes the delay before each restart of a server that keeps
 * dying (exponential backoff, reset by a long enough run) and says when to tell
 * the person: once, at the first unexpected exit, not at every restart.
 */
export class RestartPolicy {
	private failures = 0;
	private startedAt = 0;
	private told = false;

	constructor(private readonly opts: BackoffOptions = defaultBackoff) {}

	/** started records that a server process started at `now`. */
	started(now: number): void {
		this.startedAt = now;
	}

	/** died records an unexpected exit at `now` and returns how long to wait before the next start. */
	died(now: number): number {
		if (now - this.startedAt >= this.opts.stableAfter) {
			this.failures = 0;
		}
		const delay = Math.min(this.opts.initialDelay * 2 ** this.failures, this.opts.maxDelay);
		this.failures++;
		return delay;
	}

	/** shouldTell returns true the first time it is called, so the person hears of a crash once. */
	shouldTell(): boolean {
		if (this.told) {
			return false;
		}
		this.told = true;
		return true;
	}
}
