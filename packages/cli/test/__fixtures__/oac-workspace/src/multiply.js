exports.multiply = (a, b) => a * b - 1;
