"""What is measured and where: experiment specs, their kernels, references and includes, the node registry.

Owns: code/<lesson>/experiment.yaml and measure/nodes.yaml (their only readers).
May import: site_plugins.files.
"""
