// Nothing of its own: libsimtgpu-sim-fuzz.so is the archive fuzz_sim, whole.
