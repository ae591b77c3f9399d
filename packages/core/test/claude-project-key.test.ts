import { describe, expect, it } from "vitest";
import { claudeProjectKey } from "../src/index.js";

// Each pair is a cwd and the folder the real claude 2.1.330 created for it under
// `<config dir>/projects/` (`claude -p` run in that folder against a loopback model server).
const LONG_RECORD_CWD =
  "/tmp/longpath/rec-mld6Fx/first.level_folder.with-dots/second_level.folder_name.here/third.level_folder.name_x/fourth_level.folder.name/fifth.level_folder_name.y/sixth.rec_folder/seventh_level.more.name/project.dir_name";
const LONG_REPLAY_CWD =
  "/tmp/longpath/replay_other-0mCgWv/first.level_folder.with-dots/second_level.folder_name.here/third.level_folder.name_x/fourth_level.folder.name/fifth.level_folder_name.y/sixth.replay_other_folder/seventh_level.more.name/project.dir_name";
const UNICODE_CWD = `/tmp/longpath/k-q7Kymd/${"a_long.folder_name".repeat(11)}/café_ünï/😀.x`;

describe("claudeProjectKey", () => {
  it.each([
    ["/tmp/longpath/k-QQJXHB/short_dir.x", "-tmp-longpath-k-QQJXHB-short-dir-x"],
    // 200 escaped characters: kept whole.
    [`/tmp/longpath/k-bayrlf/${"x".repeat(177)}`, `-tmp-longpath-k-bayrlf-${"x".repeat(177)}`],
    // 201: cut at 200, then the hash (of a path whose hash is negative).
    [`/tmp/longpath/k-HzJCdr/${"x".repeat(178)}`, `-tmp-longpath-k-HzJCdr-${"x".repeat(177)}-2fhwr7`],
    [
      LONG_RECORD_CWD,
      "-tmp-longpath-rec-mld6Fx-first-level-folder-with-dots-second-level-folder-name-here-third-level-folder-name-x-fourth-level-folder-name-fifth-level-folder-name-y-sixth-rec-folder-seventh-level-more-nam-mmgij0",
    ],
    [
      LONG_REPLAY_CWD,
      "-tmp-longpath-replay-other-0mCgWv-first-level-folder-with-dots-second-level-folder-name-here-third-level-folder-name-x-fourth-level-folder-name-fifth-level-folder-name-y-sixth-replay-other-folder-seve-guxisl",
    ],
    // Non-ASCII past the cut still counts in the hash (a positive one here).
    [
      UNICODE_CWD,
      "-tmp-longpath-k-q7Kymd-a-long-folder-namea-long-folder-namea-long-folder-namea-long-folder-namea-long-folder-namea-long-folder-namea-long-folder-namea-long-folder-namea-long-folder-namea-long-folder-n-3m1jdt",
    ],
  ])("%s -> the folder the CLI created", (cwd, key) => {
    expect(claudeProjectKey(cwd)).toBe(key);
  });

  it("keeps the keys of long paths that share their first 200 escaped characters apart", () => {
    const base = `/${"a".repeat(220)}`;
    expect(claudeProjectKey(`${base}/one`)).not.toBe(claudeProjectKey(`${base}/two`));
    expect(claudeProjectKey(`${base}/one`).slice(0, 200)).toBe(claudeProjectKey(`${base}/two`).slice(0, 200));
  });
});
