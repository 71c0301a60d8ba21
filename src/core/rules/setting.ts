/** The shape of one setting row: a value from a flag, an environment variable or a default. Types only. */

export interface Setting<K extends string> {
	key: K;
	/** The CLI flag, without `--`. */
	flag: string;
	env: string;
	description: string;
	/**
	 * Whether the setting belongs to the user's own session (a plan file, checkpoints, the done-check, the ring): a guest
	 * (a child agent) never takes it from the environment it inherits, only from flags given to it.
	 */
	owned?: true;
}

/** A number within a range; `min` 0 usually means "off". */
export interface NumericSetting<K extends string = string> extends Setting<K> {
	default: number;
	min: number;
	max: number;
	integer: boolean;
}
