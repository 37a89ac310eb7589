"""The one colour palette of every figure: Okabe and Ito's colour-blind-safe set.

Source: M. Okabe and K. Ito, "Color Universal Design (CUD): How to make figures and presentations that are friendly
to colorblind people" (2008), https://jfly.uni-koeln.de/color/ , the set of eight colours with their RGB values
(0-255): black 0,0,0; orange 230,159,0; sky blue 86,180,233; bluish green 0,158,115; yellow 240,228,66;
blue 0,114,178; vermillion 213,94,0; reddish purple 204,121,167. Every pair stays apart for deuteranope and
protanope readers (tests/render/test_colour_blind.py checks that with the Machado et al. 2009 simulation), which
red/green pairs do not. Status is never carried by colour alone: a figure's label says "met"/"not met" as well.
"""

from __future__ import annotations

BLACK = "#000000"
ORANGE = "#e69f00"
SKY_BLUE = "#56b4e9"
BLUISH_GREEN = "#009e73"
YELLOW = "#f0e442"
BLUE = "#0072b2"
VERMILLION = "#d55e00"
REDDISH_PURPLE = "#cc79a7"

#: Colours for a series of categories, in the order they are handed out (dark and distinct first).
SERIES = (BLUE, ORANGE, BLUISH_GREEN, REDDISH_PURPLE, SKY_BLUE, VERMILLION, YELLOW, BLACK)

#: A requirement that is met / not met: colour, line style and the word for its label (never colour alone).
MET = (BLUE, "--", "met")
NOT_MET = (VERMILLION, ":", "not met")
