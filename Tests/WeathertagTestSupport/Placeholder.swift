enum TS {}
