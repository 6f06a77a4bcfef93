/**
 * ROC AUC of scores against 0/1 labels by the rank-sum (Mann-Whitney) statistic, ties counted half:
 * the probability that a random positive scores above a random negative. Unweighted on purpose: the
 * sampler weights every positive alike and every negative alike, and AUC does not change when one
 * class is reweighted as a whole.
 */
export function rocAuc(scores: ArrayLike<number>, labels: ArrayLike<number>): number {
  const n = scores.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[a]! - scores[b]!);
  let pos = 0;
  let neg = 0;
  let negBelow = 0;
  let sum = 0;
  for (let k = 0; k < n;) {
    let tiePos = 0;
    let tieNeg = 0;
    const s = scores[order[k]!]!;
    for (; k < n && scores[order[k]!] === s; k++) {
      if (labels[order[k]!]) tiePos++;
      else tieNeg++;
    }
    sum += tiePos * (negBelow + tieNeg / 2);
    negBelow += tieNeg;
    pos += tiePos;
    neg += tieNeg;
  }
  return pos === 0 || neg === 0 ? NaN : sum / (pos * neg);
}
