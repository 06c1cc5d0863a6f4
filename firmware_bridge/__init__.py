"""treeboard: firmware_bridge, a microcontroller on USB serial that scans the sensors and lights
the LEDs. Entry points: `firmware_bridge.host.open_bridge` (the Pi's SensorSource and PixelSink)
and `firmware_bridge.sim.start_simulated_firmware` (the firmware on a pty). See README.md and
PROTOCOL.md beside this file."""
