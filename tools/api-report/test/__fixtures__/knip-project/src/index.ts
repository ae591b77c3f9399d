import { used } from "./helpers.js";

export const answer = used();
