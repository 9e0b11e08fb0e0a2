// SPDX-License-Identifier: GPL-2.0
/* KUnit tests of the enc424j600 driver's pure logic (enc424j600-logic.h):
 * RX ring pointers and the ERXTAIL wrap, RX header and receive status
 * vector parsing, the multicast hash bit and the BFSU/BFCU split of an
 * update_bits request.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/random.h>

#include "enc424j600-logic.h"

/* The ring layout obeys the datasheet: the RX ring runs from an even ERXST
 * to the end of SRAM, and the TX buffer below it holds a VLAN frame.
 */
static void enc_test_ring_layout(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ENC_RX_START % 2, 0);
	KUNIT_EXPECT_GE(test, ENC_RX_START, 1518);
	KUNIT_EXPECT_EQ(test, ENC_SRAM_END, 0x5fff);
	KUNIT_EXPECT_EQ(test, ENC_RX_SIZE, 0x6000 - ENC_RX_START);
}

static void enc_test_rx_tail(struct kunit *test)
{
	/* two bytes behind the next frame ... */
	KUNIT_EXPECT_EQ(test, enc_rx_tail(ENC_RX_START + 0x12), ENC_RX_START + 0x10);
	KUNIT_EXPECT_EQ(test, enc_rx_tail(0x1234), 0x1232);
	KUNIT_EXPECT_EQ(test, enc_rx_tail(0x5ffe), 0x5ffc);
	KUNIT_EXPECT_EQ(test, enc_rx_tail(ENC_RX_START + 2), ENC_RX_START);
	/* ... except at the ring start, where it wraps to the end of SRAM */
	KUNIT_EXPECT_EQ(test, enc_rx_tail(ENC_RX_START), 0x5ffe);
}

/* Every valid pointer: the tail is inside the ring, even, 2 bytes behind */
static void enc_test_rx_tail_all(struct kunit *test)
{
	u32 p;

	for (p = ENC_RX_START; p <= ENC_SRAM_END; p += 2) {
		u16 t = enc_rx_tail(p);

		KUNIT_ASSERT_TRUE_MSG(test, enc_rx_ptr_ok(t), "tail %#x of %#x", t, p);
		KUNIT_ASSERT_EQ_MSG(test, enc_rx_wrap(t + 2), p, "tail %#x of %#x", t, p);
		KUNIT_ASSERT_EQ(test, enc_rx_dist(t, p), 2);
	}
}

/* ERXTAIL is given back once a quarter of the ring is held behind it,
 * across the wrap too, and never for less
 */
static void enc_test_rx_tail_due(struct kunit *test)
{
	u16 t = enc_rx_tail(0x1000);

	KUNIT_EXPECT_FALSE(test, enc_rx_tail_due(t, t));
	KUNIT_EXPECT_FALSE(test, enc_rx_tail_due(t, t + ENC_RX_TAIL_LAZY - 2));
	KUNIT_EXPECT_TRUE(test, enc_rx_tail_due(t, t + ENC_RX_TAIL_LAZY));
	/* from the last tail of the ring to past its start */
	t = enc_rx_tail(ENC_RX_START);
	KUNIT_EXPECT_FALSE(test, enc_rx_tail_due(t, enc_rx_wrap(t + 2 + 0x100)));
	KUNIT_EXPECT_TRUE(test, enc_rx_tail_due(t, enc_rx_wrap(t + ENC_RX_TAIL_LAZY)));
	/* a tail the chip holds ahead of the new one is no reason to wait */
	KUNIT_EXPECT_TRUE(test, enc_rx_tail_due(0x2000, 0x1ffe));
}

static void enc_test_rx_wrap(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, enc_rx_wrap(0x5ffe), 0x5ffe);
	KUNIT_EXPECT_EQ(test, enc_rx_wrap(0x5fff), 0x5fff);
	KUNIT_EXPECT_EQ(test, enc_rx_wrap(0x6000), ENC_RX_START);
	KUNIT_EXPECT_EQ(test, enc_rx_wrap(0x6000 + 0x40), ENC_RX_START + 0x40);
	KUNIT_EXPECT_EQ(test, enc_rx_wrap(ENC_RX_START), ENC_RX_START);
}

static void enc_test_rx_dist(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, enc_rx_dist(0x1000, 0x1000), 0);
	KUNIT_EXPECT_EQ(test, enc_rx_dist(0x1000, 0x1040), 0x40);
	/* across the wrap: to the end of SRAM, then from the ring start */
	KUNIT_EXPECT_EQ(test, enc_rx_dist(0x5ff0, ENC_RX_START + 0x10), 0x20);
	KUNIT_EXPECT_EQ(test, enc_rx_dist(0x1002, 0x1000), ENC_RX_SIZE - 2);
}

static void enc_test_rx_ptr_ok(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, enc_rx_ptr_ok(ENC_RX_START));
	KUNIT_EXPECT_TRUE(test, enc_rx_ptr_ok(0x5ffe));
	KUNIT_EXPECT_FALSE(test, enc_rx_ptr_ok(ENC_RX_START - 2));
	KUNIT_EXPECT_FALSE(test, enc_rx_ptr_ok(0x0000));
	KUNIT_EXPECT_FALSE(test, enc_rx_ptr_ok(0x1001));
	KUNIT_EXPECT_FALSE(test, enc_rx_ptr_ok(0x6000));
	KUNIT_EXPECT_FALSE(test, enc_rx_ptr_ok(0xffff));
}

/* A header as the chip writes it: next pointer, byte count, RSV 16..47 */
static void enc_make_hdr(u8 *hdr, u16 next, u16 len, u32 rsv)
{
	hdr[0] = next & 0xff;
	hdr[1] = next >> 8;
	hdr[2] = len & 0xff;
	hdr[3] = len >> 8;
	hdr[4] = rsv & 0xff;
	hdr[5] = (rsv >> 8) & 0xff;
	hdr[6] = (rsv >> 16) & 0xff;
	hdr[7] = rsv >> 24;
}

static void enc_test_rsv_parse(struct kunit *test)
{
	/* RSV bit 23 (received OK) and 25 (broadcast): byte 2 of the RSV */
	static const u8 raw[ENC_RX_HDR_LEN] = {
		0x34, 0x12, 0x40, 0x00, 0x80, 0x02, 0x00, 0x00,
	};
	struct enc_rx_hdr h;

	KUNIT_ASSERT_EQ(test, ENC_RX_HDR_LEN, 8);
	enc_rx_hdr_parse(raw, &h);
	KUNIT_EXPECT_EQ(test, h.next, 0x1234);
	KUNIT_EXPECT_EQ(test, h.len, 64);
	KUNIT_EXPECT_TRUE(test, h.rsv & RSV_RXOK);
	KUNIT_EXPECT_TRUE(test, h.rsv & RSV_BCAST);
	KUNIT_EXPECT_FALSE(test, h.rsv & RSV_MCAST);
	KUNIT_EXPECT_FALSE(test, h.rsv & RSV_CRCERR);
	KUNIT_EXPECT_EQ(test, enc_rsv_verdict(h.rsv), ENC_RSV_OK);
}

static void enc_test_rsv_verdict(struct kunit *test)
{
	u8 raw[ENC_RX_HDR_LEN];
	struct enc_rx_hdr h;

	/* RSV bit 20: CRC error, bit 23 clear */
	enc_make_hdr(raw, 0x1000, 64, BIT(20 - 16));
	enc_rx_hdr_parse(raw, &h);
	KUNIT_EXPECT_EQ(test, enc_rsv_verdict(h.rsv), ENC_RSV_CRC_ERROR);

	/* RSV bit 21: length check error */
	enc_make_hdr(raw, 0x1000, 64, BIT(21 - 16));
	enc_rx_hdr_parse(raw, &h);
	KUNIT_EXPECT_EQ(test, enc_rsv_verdict(h.rsv), ENC_RSV_LENGTH_ERROR);

	/* not OK with no reason given counts as a length error */
	KUNIT_EXPECT_EQ(test, enc_rsv_verdict(0), ENC_RSV_LENGTH_ERROR);

	/* received OK wins over anything else the vector says */
	enc_make_hdr(raw, 0x1000, 64, BIT(23 - 16) | BIT(24 - 16));
	enc_rx_hdr_parse(raw, &h);
	KUNIT_EXPECT_EQ(test, enc_rsv_verdict(h.rsv), ENC_RSV_OK);
	KUNIT_EXPECT_TRUE(test, h.rsv & RSV_MCAST);
}

static void enc_expect_bad(struct kunit *test, const struct enc_rx_hdr *h,
			   u16 pos, const char *what)
{
	const char *why = enc_rx_hdr_check(h, pos);

	KUNIT_ASSERT_NOT_NULL_MSG(test, why, "len %u next %#x at %#x passed",
				  h->len, h->next, pos);
	KUNIT_EXPECT_STREQ(test, why, what);
}

static void enc_test_rx_hdr_check(struct kunit *test)
{
	struct enc_rx_hdr h = { .rsv = RSV_RXOK };

	/* 64-byte frame at 0x1000: 8 + 64 bytes later */
	h.len = 64;
	h.next = 0x1000 + 72;
	KUNIT_EXPECT_NULL(test, enc_rx_hdr_check(&h, 0x1000));
	h.next += 2;
	enc_expect_bad(test, &h, 0x1000, "next pointer");

	/* odd lengths are padded to even in the ring */
	h.len = 65;
	h.next = 0x1000 + 8 + 66;
	KUNIT_EXPECT_NULL(test, enc_rx_hdr_check(&h, 0x1000));
	KUNIT_EXPECT_EQ(test, enc_rx_frame_size(65), 74);

	/* a frame that runs past the end of SRAM continues at the ring start */
	h.len = 64;
	h.next = ENC_RX_START + 72 - 0x10;
	KUNIT_EXPECT_NULL(test, enc_rx_hdr_check(&h, 0x5ff0));

	/* runt and oversized frames */
	h.len = ETH_HLEN + ETH_FCS_LEN - 1;
	enc_expect_bad(test, &h, 0x1000, "length");
	h.len = ENC_MAX_FRAME + 1;
	enc_expect_bad(test, &h, 0x1000, "length");
	h.len = ENC_MAX_FRAME;
	h.next = 0x1000 + 8 + ENC_MAX_FRAME;
	KUNIT_EXPECT_NULL(test, enc_rx_hdr_check(&h, 0x1000));
}

/* A ring image for enc_rx_skip_len(): headers written at offsets */
static void enc_test_put_hdr(u8 *buf, u32 off, u16 next, u16 len)
{
	put_unaligned_le16(next, buf + off);
	put_unaligned_le16(len, buf + off + 2);
	put_unaligned_le32(RSV_RXOK, buf + off + 4);
}

static void enc_test_rx_skip_len(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, 4096, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);

	/* a 64-byte frame's boundary 72 bytes on, and ERXHEAD there */
	enc_test_put_hdr(buf, 0, 0x1000 + 72, 0xffff);
	KUNIT_EXPECT_EQ(test, enc_rx_skip_len(buf, 72, 0x1000, true), 72);
	/* the same 72 bytes cut there by a short transfer confirm nothing */
	KUNIT_EXPECT_EQ(test, enc_rx_skip_len(buf, 72, 0x1000, false), 0);
	/* not past what was stored */
	KUNIT_EXPECT_EQ(test, enc_rx_skip_len(buf, 71, 0x1000, true), 0);
	/* more stored: only if a sane header starts at the boundary */
	KUNIT_EXPECT_EQ(test, enc_rx_skip_len(buf, 1000, 0x1000, true), 0);
	enc_test_put_hdr(buf, 72, 0x1000 + 72 + 8 + 100, 100);
	KUNIT_EXPECT_EQ(test, enc_rx_skip_len(buf, 1000, 0x1000, true), 72);
	KUNIT_EXPECT_EQ(test, enc_rx_skip_len(buf, 72 + 8, 0x1000, true), 72);
	/* a header cut short by ERXHEAD confirms nothing */
	KUNIT_EXPECT_EQ(test, enc_rx_skip_len(buf, 72 + 7, 0x1000, true), 0);
	/* a header whose own next pointer disagrees with its length */
	enc_test_put_hdr(buf, 72, 0x1000 + 72 + 8 + 102, 100);
	KUNIT_EXPECT_EQ(test, enc_rx_skip_len(buf, 1000, 0x1000, true), 0);

	/* across the end of SRAM, the next frame at the ring start */
	enc_test_put_hdr(buf, 0, ENC_RX_START + 72 - 0x10, 0xffff);
	KUNIT_EXPECT_EQ(test, enc_rx_skip_len(buf, 72, 0x5ff0, true), 72);

	/* odd, outside the ring, or not a frame's size away */
	enc_test_put_hdr(buf, 0, 0x1000 + 73, 0xffff);
	KUNIT_EXPECT_EQ(test, enc_rx_skip_len(buf, 73, 0x1000, true), 0);
	enc_test_put_hdr(buf, 0, ENC_RX_START - 2, 0xffff);
	KUNIT_EXPECT_EQ(test, enc_rx_skip_len(buf, 2048, 0x5ff0, true), 0);
	enc_test_put_hdr(buf, 0, 0x1000 + ENC_RX_HDR_LEN + ETH_HLEN +
			 ETH_FCS_LEN - 2, 0);
	KUNIT_EXPECT_EQ(test, enc_rx_skip_len(buf, ENC_RX_HDR_LEN + ETH_HLEN +
					      ETH_FCS_LEN - 2, 0x1000, true), 0);
	enc_test_put_hdr(buf, 0, 0x1000, 0xffff);
	KUNIT_EXPECT_EQ(test, enc_rx_skip_len(buf, 2048, 0x1000, true), 0);
	enc_test_put_hdr(buf, 0, 0x1000 + ENC_RX_HDR_LEN + ENC_MAX_FRAME,
			 0xffff);
	KUNIT_EXPECT_EQ(test, enc_rx_skip_len(buf, ENC_RX_HDR_LEN +
					      ENC_MAX_FRAME, 0x1000, true),
			ENC_RX_HDR_LEN + ENC_MAX_FRAME);
	enc_test_put_hdr(buf, 0, 0x1000 + ENC_RX_HDR_LEN + ENC_MAX_FRAME + 2,
			 0xffff);
	KUNIT_EXPECT_EQ(test, enc_rx_skip_len(buf, ENC_RX_HDR_LEN +
					      ENC_MAX_FRAME + 2, 0x1000, true), 0);

	KUNIT_EXPECT_TRUE(test, enc_rx_len_ok(ETH_HLEN + ETH_FCS_LEN));
	KUNIT_EXPECT_TRUE(test, enc_rx_len_ok(ENC_MAX_FRAME));
	KUNIT_EXPECT_FALSE(test, enc_rx_len_ok(ETH_HLEN + ETH_FCS_LEN - 1));
	KUNIT_EXPECT_FALSE(test, enc_rx_len_ok(ENC_MAX_FRAME + 1));
}

/* The Ethernet CRC the hash uses, bit by bit (IEEE 802.3: polynomial
 * 0x04c11db7, all ones preset, data LSB first, not complemented), so the
 * driver's ether_crc() based index is checked against an independent
 * computation.
 */
static u32 enc_test_crc(const u8 *data, int len)
{
	u32 crc = ~0u;
	int i, b;

	for (i = 0; i < len; i++) {
		for (b = 0; b < 8; b++) {
			u32 bit = (data[i] >> b) & 1;
			u32 msb = crc >> 31;

			crc <<= 1;
			if (msb ^ bit)
				crc ^= 0x04c11db7;
		}
	}
	return crc;
}

static void enc_test_hash_known(struct kunit *test)
{
	static const struct {
		u8 addr[ETH_ALEN];
		unsigned int idx;
	} known[] = {
		/* IPv4 all-hosts, IPv6 all-nodes, broadcast, STP */
		{ { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 }, 63 },
		{ { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 }, 51 },
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, 62 },
		{ { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x00 }, 15 },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(known); i++)
		KUNIT_EXPECT_EQ_MSG(test, enc_hash_index(known[i].addr),
				    known[i].idx, "address %pM", known[i].addr);
}

static void enc_test_hash_reference(struct kunit *test)
{
	u8 addr[ETH_ALEN];
	int i;

	for (i = 0; i < 1000; i++) {
		unsigned int want;

		get_random_bytes(addr, sizeof(addr));
		addr[0] |= 1;	/* multicast */
		want = (enc_test_crc(addr, ETH_ALEN) >> 23) & 0x3f;
		KUNIT_ASSERT_EQ_MSG(test, enc_hash_index(addr), want,
				    "address %pM", addr);
	}
}

static void enc_test_hash_table(struct kunit *test)
{
	static const u8 a[ETH_ALEN] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
	static const u8 b[ETH_ALEN] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x00 };
	u16 ht[4] = { };

	/* index 63: EHT4 bit 15; index 15: EHT1 bit 15 */
	enc_hash_add(ht, a);
	KUNIT_EXPECT_EQ(test, ht[0], 0);
	KUNIT_EXPECT_EQ(test, ht[1], 0);
	KUNIT_EXPECT_EQ(test, ht[2], 0);
	KUNIT_EXPECT_EQ(test, ht[3], 0x8000);
	enc_hash_add(ht, b);
	KUNIT_EXPECT_EQ(test, ht[0], 0x8000);
	KUNIT_EXPECT_EQ(test, ht[3], 0x8000);
	/* adding again changes nothing */
	enc_hash_add(ht, a);
	KUNIT_EXPECT_EQ(test, ht[3], 0x8000);
}

static void enc_test_update_split(struct kunit *test)
{
	u16 set, clr;

	enc_update_split(0xffff, 0x00f0, &set, &clr);
	KUNIT_EXPECT_EQ(test, set, 0x00f0);
	KUNIT_EXPECT_EQ(test, clr, 0xff0f);

	/* bits outside the mask are neither set nor cleared */
	enc_update_split(0x0f00, 0xf5ff, &set, &clr);
	KUNIT_EXPECT_EQ(test, set, 0x0500);
	KUNIT_EXPECT_EQ(test, clr, 0x0a00);

	/* only set: no BFCU; only clear: no BFSU; empty mask: nothing */
	enc_update_split(EIE_PKTIE, EIE_PKTIE, &set, &clr);
	KUNIT_EXPECT_EQ(test, set, EIE_PKTIE);
	KUNIT_EXPECT_EQ(test, clr, 0);
	enc_update_split(EIR_PKTIF | EIR_LINKIF, 0, &set, &clr);
	KUNIT_EXPECT_EQ(test, set, 0);
	KUNIT_EXPECT_EQ(test, clr, EIR_PKTIF | EIR_LINKIF);
	enc_update_split(0, 0xffff, &set, &clr);
	KUNIT_EXPECT_EQ(test, set, 0);
	KUNIT_EXPECT_EQ(test, clr, 0);
}

/* BFSU then BFCU on any register value gives the read-modify-write result */
static void enc_test_update_split_equiv(struct kunit *test)
{
	int i;

	for (i = 0; i < 2000; i++) {
		u16 r = get_random_u32(), mask = get_random_u32();
		u16 val = get_random_u32();
		u16 set, clr, got;

		enc_update_split(mask, val, &set, &clr);
		KUNIT_ASSERT_EQ(test, set & clr, 0);
		got = (r | set) & ~clr;
		KUNIT_ASSERT_EQ_MSG(test, got, (r & ~mask) | (val & mask),
				    "reg %#x mask %#x val %#x", r, mask, val);
	}
}

/* MAC/MII registers must never see BFS/BFC */
static void enc_test_macmii(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, enc_is_macmii(MACON1));
	KUNIT_EXPECT_TRUE(test, enc_is_macmii(MAMXFL));
	KUNIT_EXPECT_TRUE(test, enc_is_macmii(MIREGADR));
	KUNIT_EXPECT_TRUE(test, enc_is_macmii(MAADR3));
	KUNIT_EXPECT_TRUE(test, enc_is_macmii(MISTAT));
	KUNIT_EXPECT_FALSE(test, enc_is_macmii(EIR));
	KUNIT_EXPECT_FALSE(test, enc_is_macmii(ECON1));
	KUNIT_EXPECT_FALSE(test, enc_is_macmii(ERXFCON));
	KUNIT_EXPECT_FALSE(test, enc_is_macmii(EPAUS));
	KUNIT_EXPECT_FALSE(test, enc_is_macmii(EIE));
}

static struct kunit_case enc424j600_logic_cases[] = {
	KUNIT_CASE(enc_test_ring_layout),
	KUNIT_CASE(enc_test_rx_tail),
	KUNIT_CASE(enc_test_rx_tail_all),
	KUNIT_CASE(enc_test_rx_tail_due),
	KUNIT_CASE(enc_test_rx_wrap),
	KUNIT_CASE(enc_test_rx_dist),
	KUNIT_CASE(enc_test_rx_ptr_ok),
	KUNIT_CASE(enc_test_rsv_parse),
	KUNIT_CASE(enc_test_rsv_verdict),
	KUNIT_CASE(enc_test_rx_hdr_check),
	KUNIT_CASE(enc_test_rx_skip_len),
	KUNIT_CASE(enc_test_hash_known),
	KUNIT_CASE(enc_test_hash_reference),
	KUNIT_CASE(enc_test_hash_table),
	KUNIT_CASE(enc_test_update_split),
	KUNIT_CASE(enc_test_update_split_equiv),
	KUNIT_CASE(enc_test_macmii),
	{}
};

static struct kunit_suite enc424j600_logic_suite = {
	.name = "enc424j600_logic",
	.test_cases = enc424j600_logic_cases,
};

kunit_test_suite(enc424j600_logic_suite);

MODULE_DESCRIPTION("KUnit tests of the enc424j600 driver's pure logic");
MODULE_LICENSE("GPL");
