import { useRef, useState } from 'react';

interface DropZoneProps {
  readonly disabled: boolean;
  /** One file, or several (the ranks of one job). */
  readonly onFiles: (files: File[]) => void;
}

/** Drop files here or choose them; the accept list is a hint, the server sniffs the format. */
export function DropZone({ disabled, onFiles }: DropZoneProps) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  return (
    <div
      className={over ? 'dropzone over' : 'dropzone'}
      data-testid="dropzone"
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        const files = Array.from(e.dataTransfer.files);
        if (files.length > 0 && !disabled) {
          onFiles(files);
        }
      }}
    >
      <p>
        Drop an Nsight Systems report (.nsys-rep, where the server has nsys) or export (.json,
        .sqlite), a PyTorch / Chrome trace (.json, .json.gz) or a .sstrace here; several files of
        one distributed job (one per rank) open as one trace
      </p>
      <button type="button" disabled={disabled} onClick={() => input.current?.click()}>
        Choose files…
      </button>
      <input
        ref={input}
        type="file"
        hidden
        multiple
        data-testid="import-file-input"
        accept=".json,.gz,.sqlite,.sqlite3,.db,.sstrace,.nsys-rep,.qdrep"
        onChange={(e) => {
          const files = Array.from(e.target.files ?? []);
          e.target.value = '';
          if (files.length > 0) {
            onFiles(files);
          }
        }}
      />
    </div>
  );
}
