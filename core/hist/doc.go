// Package hist holds the exact samplers of the histogram engine (balloc run
// --engine histogram): they advance the counts of bins per load level
// (kernels.Levels) by many balls at once, exactly in distribution. The
// processes (core/process) call them from their level steppers: Advance for
// d-choice and (1+β), ThrowLevels for one-choice, BBatch for b-batch.
package hist
