// Prettier settings for extension/ (the Chrome extension samples' style).
export default {
  singleQuote: true,
  printWidth: 80,
};
