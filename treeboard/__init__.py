"""treeboard: what every layer shares, below them all. Today one module: `treeboard.exc`, the
root of the project's own errors and the families of the layers that others catch.

It imports nothing of the project, so the pure layers (games/, hardware/, firmware_bridge/)
may import it as freely as the board driver does.
"""
