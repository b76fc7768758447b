import { useRef, useState } from 'react';

interface DropZoneProps {
  readonly disabled: boolean;
  readonly onFile: (file: File) => void;
}

/** Drop a file here or choose one; the accept list is a hint, the server sniffs the format. */
export function DropZone({ disabled, onFile }: DropZoneProps) {
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
        const file = e.dataTransfer.files[0];
        if (file !== undefined && !disabled) {
          onFile(file);
        }
      }}
    >
      <p>
        Drop an Nsight Systems export (.json, .sqlite), a kineto / Chrome trace (.json, .json.gz) or
        a .sstrace here
      </p>
      <button type="button" disabled={disabled} onClick={() => input.current?.click()}>
        Choose a file…
      </button>
      <input
        ref={input}
        type="file"
        hidden
        data-testid="import-file-input"
        accept=".json,.gz,.sqlite,.sqlite3,.db,.sstrace"
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = '';
          if (file !== undefined) {
            onFile(file);
          }
        }}
      />
    </div>
  );
}
