enum WeathertagHTTPPlaceholder {}
