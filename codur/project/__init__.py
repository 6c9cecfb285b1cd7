"""The project Codur works on, as its own tools see it: the Python its programs and tests
run with (`interpreter`)."""
