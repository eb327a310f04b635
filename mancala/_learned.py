"""The weights of the learned evaluation (``evaluation="learned"``).

The learned evaluation is the store difference plus a guess of what the rest
of the game adds to it: a weighted sum of terms, fitted by least squares to
the exact values (perfect play to the end) of positions from Kalah(6,4)
games, by ``bench/fit_evaluation.py``. Its terms, each from the mover's view:

    a constant (the right to move)
    the seeds in each of the mover's six pits, from its left
    the seeds in each of the opponent's six pits, from their left
    the mover's moves that end in its store, its best capture, its empty pits
    the same three of the opponent's

and what tables add (PITS and FACING have a row per pit: the mover's six,
then the opponent's, each from its owner's left; TOTALS a row per side):

    PITS: each pit, by the seeds it holds (0..11, 12 or more)
    TOTALS: each row (the mover's, the opponent's), by the seeds it holds (0..29, 30 or more)
    FACING: each empty pit, by the seeds in the pit facing it (0..7, 8 or more)

The tables let a pit's worth depend on its count the way a weight cannot: a
pit one seed short of its store, or one holding 13 (a lap that ends where it
began), is not simply worth its seeds; nor is an empty pit facing a full one.

Two sets of weights and tables blend by the share of all seeds still in the pits
(tapered): MIDGAME when every seed is in a pit, ENDGAME when none are. The
weights are in 64ths of a seed; the blended sum is rounded to whole seeds
(halves away from zero) and kept within the seeds in the pits, as the final
margin is. The core (mancala/_core_rules.pxi) and the twin
(mancala/_reference.py) both read them from here.
"""
SCALE = 64
COUNTS = 13         # the PITS tables' columns: 0..11 seeds, then 12 or more
TOTALS = 31         # the TOTALS tables' columns: 0..29 seeds, then 30 or more
FACING = 9          # the FACING tables' columns: 0..7 seeds, then 8 or more

# fitted to 17,897 positions (bench/fit_evaluation.py); the root mean square
# error of the guess, in seeds: 8.58 for the store difference alone, 8.15 with
# the positional terms, 4.11 with these (on 2,588 positions left out of a fit
# to 13,917 others: 4.29, against 4.53 with PITS alone and 5.95 with no tables)
#          const  mover's pits 1..6 from its left  opponent's pits 1..6
#                 extra-turn moves, best capture, empty pits: the mover's, the opponent's
MIDGAME = (1, -37, -42, -12, 20, 31, 38, 44, 37, 23, -6, -29, -46, 287, 25, -55, -71, -11, 59)
MIDGAME_PITS = (
    (-268, -52, 7, 38, 280, 326, 12, -46, -122, -98, -83, 7, 0),
    (-229, -11, 134, 162, 187, 8, -100, -46, -133, -36, 34, -16, 46),
    (-116, 72, 153, 166, 56, -141, -88, -152, -82, -51, -24, 52, 158),
    (70, 182, 212, 61, -170, -157, -185, -134, -157, -65, 74, 32, 237),
    (191, 182, 95, -138, -115, -117, -171, -200, -94, -2, 52, 156, 161),
    (297, 106, -130, -159, -151, -135, -83, -86, -26, 19, 89, 131, 129),
    (226, 59, -16, -89, -247, -281, 110, 25, 112, 73, 30, 0, 0),
    (173, 35, -134, -209, -229, 161, 63, 110, 105, 32, 39, -92, -53),
    (101, -87, -133, -286, 67, 146, 150, 71, 107, 74, 70, -86, -192),
    (-66, -198, -256, -98, 207, 174, 180, 142, 136, 167, -47, -92, -248),
    (-159, -235, -128, 99, 135, 158, 202, 196, 90, -16, -20, -142, -180),
    (-216, -179, 32, 148, 179, 140, 207, 33, -16, -26, -70, -129, -102),
)
MIDGAME_TOTALS = (
    (0, -586, -258, 30, 201, 263, 203, 136, 69, -2, 33, 67, 79, 46, 45, -8, -44, -66, -56, -30, -4, -23, 0, -47, -71, 48, 16, 43, 34, -16, -99),
    (0, 494, 141, -144, -167, -174, -204, -95, -7, 41, 40, -50, -112, -37, 19, 71, 44, 61, 82, 20, 45, 41, -101, 48, -12, -18, 12, -115, 15, 2, 65),
)
MIDGAME_FACING = (
    (-49, 16, -244, -128, -29, 72, -62, 96, 59),
    (-40, -133, 87, -66, 17, 31, -2, -30, -92),
    (9, -38, 10, 67, -85, -103, -6, 54, -24),
    (45, 53, -60, 118, 6, -25, 8, -88, 13),
    (21, 36, 31, 68, 21, 22, 10, -7, -12),
    (-19, 27, 76, 51, 123, -67, 104, -2, 3),
    (-19, -97, 144, 87, 32, -7, 10, 26, 51),
    (21, 123, -41, 58, 53, -84, -41, 8, 76),
    (45, 40, 44, 14, 24, 70, 2, -86, -51),
    (9, -5, -30, -79, 33, -26, 16, 59, -43),
    (-40, -57, -81, 9, -1, -25, -5, 4, 38),
    (-49, -70, -54, -59, -22, 126, -28, -15, -45),
)
ENDGAME = (7, 65, 64, 53, 35, 28, 45, -59, -64, -48, -33, -20, -36, 120, 80, -88, -167, -25, 53)
ENDGAME_PITS = (
    (-128, -39, 40, 79, -23, 108, 137, -6, -73, -35, -55, 0, 0),
    (-111, -14, 4, 50, 95, 83, 51, -62, -23, -64, 8, -43, 34),
    (-57, 24, 69, 115, -10, 45, -20, -56, -165, -124, -91, 105, 173),
    (18, 42, 102, 4, 31, 68, -12, -148, -201, -171, -23, 121, 175),
    (74, 130, 4, -2, -38, -61, -95, -132, -121, 72, 21, 65, 88),
    (115, -8, 29, 9, -33, -91, -185, -48, 1, 14, 20, 95, 91),
    (109, 34, -30, -21, -37, -145, -37, 1, 82, 42, 7, 0, 0),
    (75, -22, 0, -2, -49, -83, 30, -14, 56, 44, 3, 5, -36),
    (53, 11, -56, -74, -68, -46, 6, 33, 172, 146, 71, -39, -202),
    (6, -26, -81, -16, -74, -42, 35, 55, 245, 87, -12, -8, -162),
    (-64, -102, -16, -7, 5, 11, 111, 169, 123, -47, -46, -66, -63),
    (-126, 39, -5, -48, -5, 49, 197, 120, 16, -17, -31, -90, -93),
)
ENDGAME_TOTALS = (
    (0, 164, 116, 78, 40, -16, -25, -51, -57, -44, -93, -96, -92, -60, -60, -6, -18, 27, -3, 17, -30, -76, -41, 14, 68, 62, 75, 88, 38, 22, -34),
    (0, -132, -76, -38, -16, -4, 37, 62, -6, 34, 28, 77, 92, 52, -1, 41, 16, -28, -24, -26, 21, 77, 96, 60, -59, -83, -40, -126, 7, -56, 22),
)
ENDGAME_FACING = (
    (80, 142, -4, -50, -38, -59, -32, -66, -100),
    (67, 163, 149, -81, -86, -25, -65, -99, -134),
    (51, 105, 133, 113, -12, -89, -87, -117, -153),
    (-21, -6, 58, 61, 70, -63, -34, -19, -28),
    (-31, 38, 37, 35, 66, -15, -28, 7, -35),
    (-40, -16, 3, 4, 90, 45, 3, 17, 7),
    (-40, -144, 22, 81, 28, 67, -16, 52, 59),
    (-31, -115, -105, 73, 52, 64, 82, -3, 57),
    (-21, -69, -65, -86, 54, 68, 31, 75, 65),
    (51, -20, -22, 0, -26, 35, 11, 43, -67),
    (67, -13, -27, -22, -71, -74, 6, 5, 65),
    (80, 17, -28, -27, -70, -81, 29, -35, -10),
)
