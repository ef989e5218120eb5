/**
 * Records a voice note with MediaRecorder for its host: start() asks for the
 * microphone, stop(true) hands the recording over as a named file, stop(false)
 * (or the host leaving the page) throws it away and releases the microphone.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** Refused by the visitor or the page; no recorder in this browser; no microphone; the device failed. */
export type RecorderProblem = 'denied' | 'unavailable' | 'missing' | 'failed';
export type Recording = Blob & { name: string };

export class AudioRecorderController implements ReactiveController {
  /** True while recording (the host re-renders when it changes). */
  recording = false;
  /** Whole seconds recorded so far (the host shows them). */
  seconds = 0;
  #recorder: MediaRecorder | undefined;
  #clock: ReturnType<typeof setInterval> | undefined;
  #keep = true;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly onRecorded: (file: Recording) => void,
    private readonly onProblem: (problem: RecorderProblem) => void,
  ) {
    host.addController(this);
  }

  async start(): Promise<void> {
    if (this.#recorder) return;
    if (typeof MediaRecorder === 'undefined' || !navigator.mediaDevices?.getUserMedia) {
      return this.onProblem('unavailable');
    }
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch (error) {
      const name = (error as Error | null)?.name;
      return this.onProblem(
        name === 'NotAllowedError' || name === 'SecurityError'
          ? 'denied'
          : name === 'NotFoundError' || name === 'OverconstrainedError'
            ? 'missing'
            : 'failed',
      );
    }
    const chunks: Blob[] = [];
    const recorder = new MediaRecorder(stream);
    recorder.addEventListener('dataavailable', (e) => chunks.push(e.data));
    recorder.addEventListener('stop', () => {
      stream.getTracks().forEach((track) => track.stop());
      const keep = recorder === this.#recorder && this.#keep;
      this.#recorder = undefined;
      this.#setRecording(false);
      if (!keep || chunks.length === 0) return;
      const type = (recorder.mimeType || 'audio/webm').split(';')[0]!;
      this.onRecorded(
        Object.assign(new Blob(chunks, { type }), { name: `audio.${type.split('/')[1] ?? 'webm'}` }),
      );
    });
    this.#recorder = recorder;
    this.#keep = true;
    this.#setRecording(true);
    recorder.start();
  }

  /** Ends the recording; `keep` hands it to the host. */
  stop(keep: boolean): void {
    if (!this.#recorder) return;
    this.#keep = keep;
    if (this.#recorder.state !== 'inactive') this.#recorder.stop();
  }

  #setRecording(value: boolean): void {
    this.recording = value;
    this.seconds = 0;
    clearInterval(this.#clock);
    this.#clock = value
      ? setInterval(() => {
          this.seconds++;
          this.host.requestUpdate();
        }, 1000)
      : undefined;
    this.host.requestUpdate();
  }

  hostDisconnected(): void {
    this.stop(false);
    clearInterval(this.#clock);
  }
}
