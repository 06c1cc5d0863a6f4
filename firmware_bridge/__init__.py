"""treeboard: firmware_bridge."""
