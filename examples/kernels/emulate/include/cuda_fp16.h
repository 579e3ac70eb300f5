// Empty stand-in: emu.hpp provides __half.
