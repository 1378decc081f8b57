enum WeathertagDaemonPlaceholder {}
