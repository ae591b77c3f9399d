// A scripted model with a bug: it throws on its first call (line 5).
export default {
  "team-x": (request) => {
    const missing = request.metadata.nothing;
    return missing.reply();
  },
};
