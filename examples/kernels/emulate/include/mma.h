// Empty stand-in: emu.hpp provides nvcuda::wmma.
