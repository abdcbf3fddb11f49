// One turn of a busy wait. Internal: not part of the public API.
#pragma once

namespace attn {

// The CPU's pause hint where it has one (x86: the spinning core hands its pipeline to its sibling
// and leaves the memory order machinery alone until the awaited store lands). WebAssembly has no
// such instruction, and its waits here are short (a feed's copy), so there it is nothing.
inline void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace attn
