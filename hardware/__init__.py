"""Sensors and LEDs: gpiozero pins, scanned matrices, MCP3008 ADCs, NeoPixel strips, and their
simulated twins, behind the two interfaces in `hardware.base`."""

from hardware.base import PRESENT, HardwareError, PixelSink, SensorEvent, SensorSource

__all__ = ["PRESENT", "HardwareError", "PixelSink", "SensorEvent", "SensorSource"]
