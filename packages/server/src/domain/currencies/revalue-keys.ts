/** The chart role of 4400 Foreign exchange gains and losses (gl/chart.ts): realised and revalued differences. */
export const FX_KEY = 'fx_gain_loss';
