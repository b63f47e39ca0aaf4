// The residency samples of the current worker that a turn's report holds: those of its load and
// those of the turn, bounded; and the worker's storage reads so far (its counter starts at zero
// with each worker), for the API's bytes-per-token figure.
import type { ResidencySample } from '../shared/residency-types.js';

const MAX_SAMPLES = 100_000;

export class TurnSamples {
  private samples: ResidencySample[] = [];
  private read: number | null = null;

  add(sample: ResidencySample): void {
    if (sample.readBytes !== null) this.read = sample.readBytes;
    if (this.samples.length < MAX_SAMPLES) this.samples.push(sample);
  }

  readBytes(): number | null {
    return this.read;
  }

  /** A new worker: its reads count from zero. */
  newWorker(): void {
    this.read = null;
  }

  newLoad(): void {
    this.samples = [];
  }

  /** A turn starts: the load's samples stay, the previous turn's go. */
  newTurn(): void {
    this.samples = this.samples.filter((x) => x.phase === 'load');
  }

  list(): ResidencySample[] {
    return [...this.samples];
  }
}
