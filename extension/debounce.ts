// Coalescing bursts of editor events.

/** A debounced function: call it often, it runs `wait` ms after the last call with the last arguments. */
export interface Debounced<A extends unknown[]> {
	(...args: A): void;
	/** cancel drops a pending call. */
	cancel(): void;
}

/** debounce returns fn delayed until `wait` ms have passed without another call. */
export function debounce<A extends unknown[]>(fn: (...args: A) => void, wait: number): Debounced<A> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const d = (...args: A): void => {
		if (timer !== undefined) {
			clearTimeout(timer);
		}
		timer = setTimeout(() => {
			timer = undefined;
			fn(...args);
		}, wait);
	};
	d.cancel = (): void => {
		if (timer !== undefined) {
			clearTimeout(timer);
			timer = undefined;
		}
	};
	return d;
}
