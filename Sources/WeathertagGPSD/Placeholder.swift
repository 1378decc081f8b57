enum WeathertagGPSDPlaceholder {}
