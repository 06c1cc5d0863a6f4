"""treeboard: board_driver."""
