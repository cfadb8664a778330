//! Unit tests of the emulator, one module per feature family.
