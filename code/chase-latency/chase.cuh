// Memory-hierarchy latency: one thread follows a chain of dependent loads through a working set, and
// the time per load is the latency of whichever level of the hierarchy holds the set.
//
// The buffer is cut into 32-byte sectors (the unit the L1 and the L2 move), and the chain visits sector
// indices in the order of a linear congruential generator: idx <- (idx A + C) mod L, with L sectors
// (a power of two). C odd and A = 1 (mod 4) give a full period, so the chain visits every sector of
// the set exactly once per L steps, in an order with no constant stride. The thread reads the first
// float of each sector.
//
// Each address must wait for the previous load: the next index is XORed with bit 30 of the loaded
// value, which is 0 for every input in [-1, 1) but which neither the compiler nor the hardware can
// know, so no load can be issued before the one before it has returned. The LCG step itself does not
// depend on the load and overlaps with it.
//
// The thread writes the final index as two exact floats (its low 12 bits and the rest); the numpy
// reference computes it with the generator's closed form, so a chain that took a different path or a
// different number of steps fails the check.
//
// src has no __restrict__: the loads stay plain ld.global (LDG.E in the SASS), the path an ordinary
// kernel's loads take; with `const float* __restrict__` they become non-coherent loads
// (LDG.E.CONSTANT). In the SASS each step is the load, then two LOP3 (the bit of the value, the XOR
// with the next index) and the IMAD.WIDE that forms the next address: three dependent integer
// instructions whose latency is part of every step's time.

#define LCG_A 1664525u
#define LCG_C 1013904223u
#define SECTOR_FLOATS 8  // 32 bytes

// --8<-- [start:chase]
__device__ __forceinline__ void chase_body(float* dst, const float* src, unsigned mask, int steps)
{
    if (threadIdx.x != 0 || blockIdx.x != 0)
        return;
    unsigned idx = 0;
    for (int k = 0; k < steps; ++k) {
        unsigned next = (idx * LCG_A + LCG_C) & mask;  // independent of the load: overlaps with it
        float v = src[(size_t)idx * SECTOR_FLOATS];
        idx = next ^ (__float_as_uint(v) & 0x40000000u);  // 0 for |v| < 2, but the load must return first
    }
    dst[0] = (float)(idx & 4095u);
    dst[1] = (float)(idx >> 12);
}
// --8<-- [end:chase]
