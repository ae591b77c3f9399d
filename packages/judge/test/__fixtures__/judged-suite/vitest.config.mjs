export default { test: { include: ["judged.suite.ts"], pool: "forks", testTimeout: 180_000 } };
