"""The device: the PyCUDA adapter, driver and cuBLAS calls, the output checks, the probe ncu runs.

Owns: everything that touches the GPU (needs PyCUDA and numpy; nothing else here does).
May import: measure.experiment, measure.nsight, measure.store.
"""
