export function used(): number {
  return 42;
}

// Nobody imports this: knip must report it.
export function unused(): number {
  return 0;
}
