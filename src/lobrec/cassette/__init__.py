"""The recording format: one home for every rule of what a cassette folder holds.

Recording (`lobrec.running.recording`, `lobrec.running.live`), replay (`lobrec.running.replay`,
`lobrec.running.playback`) and `lobrec audit` (`audit`) read and write cassettes only through these modules:

- `format`: the file Structs (cassette and manifest), the one decoder and its errors, the format
  version, the pretty encoder, capped reading;
- `headers`: the response headers lobrec adds (elapsed time, no-response error) and keeps, and the
  one rule for reading a recorded elapsed time;
- `manifest`: what a manifest must say (its model owns the folder, its suite version is re-judgeable),
  case and suite fingerprints, the major-version and newer-suite rules;
- `layout`: folder and file names, run folders, the cassettes root;
- `locks`: the one writer per model folder;
- `vcrpy`: vcrpy's serializer and persister over the same Structs (vcrpy records live exchanges and is
  the reference reader the tests hold every committed cassette against).

Atomic writes and capped reads of any file live one level down, in `lobrec.files`.
"""
