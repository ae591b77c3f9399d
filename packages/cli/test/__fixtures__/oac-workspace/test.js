const { multiply } = require("./src/multiply.js");
const got = multiply(2, 3);
if (got !== 6) {
  console.log(`Test failed: multiply(2, 3) expected 6, got ${got}`);
  console.log("1 failing");
  process.exit(1);
}
console.log("1 passing");
