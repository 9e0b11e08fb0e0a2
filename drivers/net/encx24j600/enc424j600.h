/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Microchip ENC424J600/ENC624J600 (ENCX24J600) SPI Ethernet controller:
 * register map, driver state and the interfaces between the driver's layers.
 */
#ifndef _ENC424J600_H
#define _ENC424J600_H

#include <linux/bits.h>
#include <linux/cache.h>
#include <linux/if_vlan.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/regmap.h>
#include <linux/spi/spi.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>

/* the module's name */
#define ENC_DRV_NAME		KBUILD_MODNAME

/* SPI opcodes: 1-byte commands */
#define ENC_SETETHRST		0xca
#define ENC_SETPKTDEC		0xcc
#define ENC_SETTXRTS		0xd4
#define ENC_ENABLERX		0xe8
#define ENC_DISABLERX		0xea
#define ENC_SETEIE		0xec
#define ENC_CLREIE		0xee

/* 3-byte pointer writes */
#define ENC_WGPWRPT		0x6c
#define ENC_WRXRDPT		0x64

/* N-byte unbanked SFR access and SRAM windows */
#define ENC_RCRU		0x20
#define ENC_WCRU		0x22
#define ENC_BFSU		0x24
#define ENC_BFCU		0x26
#define ENC_WGPDATA		0x2a
#define ENC_RRXDATA		0x2c

/* SFRs (unbanked addresses; every register is 16 bits, little endian) */
#define ETXST			0x00
#define ETXLEN			0x02
#define ERXST			0x04
#define ERXTAIL			0x06
#define ERXHEAD			0x08
#define EDMAST			0x0a
#define EDMALEN			0x0c
#define EDMADST			0x0e
#define EDMACS			0x10
#define ETXSTAT			0x12
#define ETXWIRE			0x14
#define EUDAST			0x16
#define EUDAND			0x18
#define ESTAT			0x1a
#define EIR			0x1c
#define ECON1			0x1e
#define EHT1			0x20
#define EHT2			0x22
#define EHT3			0x24
#define EHT4			0x26
#define EPMM1			0x28
#define EPMCS			0x30
#define EPMO			0x32
#define ERXFCON			0x34
#define MACON1			0x40
#define MACON2			0x42
#define MABBIPG			0x44
#define MAIPG			0x46
#define MACLCON			0x48
#define MAMXFL			0x4a
#define MICMD			0x52
#define MIREGADR		0x54
#define MAADR3			0x60
#define MAADR2			0x62
#define MAADR1			0x64
#define MIWR			0x66
#define MIRD			0x68
#define MISTAT			0x6a
#define EPAUS			0x6c
#define ECON2			0x6e
#define ERXWM			0x70
#define EIE			0x72
#define EIDLED			0x74
#define EGPDATA			0x80
#define ERXDATA			0x82
#define EUDADATA		0x84
#define EGPRDPT			0x86
#define EGPWRPT			0x88
#define ERXRDPT			0x8a
#define ERXWRPT			0x8c
#define EUDARDPT		0x8e
#define EUDAWRPT		0x90

#define ENC_SFR_LAST		0x9e
#define ENC_SFR_SIZE		0xa0

/* MAC and MII registers: 16-bit writes only, never BFS/BFC */
static inline bool enc_is_macmii(unsigned int reg)
{
	return (reg >= 0x40 && reg <= 0x55) || (reg >= 0x60 && reg <= 0x6b);
}

/* ESTAT */
#define ESTAT_INT		BIT(15)
#define ESTAT_FCIDLE		BIT(14)
#define ESTAT_RXBUSY		BIT(13)
#define ESTAT_CLKRDY		BIT(12)
#define ESTAT_PHYDPX		BIT(10)
#define ESTAT_PHYLNK		BIT(8)
#define ESTAT_PKTCNT		GENMASK(7, 0)

/* EIR and EIE share the bit layout (EIE.INTIE at bit 15) */
#define EIR_CRYPTEN		BIT(15)
#define EIR_LINKIF		BIT(11)
#define EIR_PKTIF		BIT(6)
#define EIR_DMAIF		BIT(5)
#define EIR_TXIF		BIT(3)
#define EIR_TXABTIF		BIT(2)
#define EIR_RXABTIF		BIT(1)
#define EIR_PCFULIF		BIT(0)
#define EIE_INTIE		BIT(15)
#define EIE_LINKIE		BIT(11)
#define EIE_PKTIE		BIT(6)
#define EIE_TXIE		BIT(3)
#define EIE_TXABTIE		BIT(2)
#define EIE_RXABTIE		BIT(1)
#define EIE_PCFULIE		BIT(0)

/* ECON1 */
#define ECON1_PKTDEC		BIT(8)
#define ECON1_TXRTS		BIT(1)
#define ECON1_RXEN		BIT(0)

/* ECON2 */
#define ECON2_ETHEN		BIT(15)
#define ECON2_TXRST		BIT(6)
#define ECON2_RXRST		BIT(5)
#define ECON2_ETHRST		BIT(4)

/* ERXFCON */
#define ERXFCON_HTEN		BIT(15)
#define ERXFCON_CRCEN		BIT(6)
#define ERXFCON_RUNTEN		BIT(4)
#define ERXFCON_UCEN		BIT(3)
#define ERXFCON_NOTMEEN		BIT(2)
#define ERXFCON_MCEN		BIT(1)
#define ERXFCON_BCEN		BIT(0)
/* Every receive mode: our unicast and broadcast, runts dropped.  CRCEN is
 * left off on purpose: the chip has no error counters, so a frame its
 * filter dropped would be lost without trace.  A frame with a bad CRC is
 * stored with the CRC error bit in its status vector instead, and the
 * driver drops it and counts it in rx_crc_errors.
 */
#define ERXFCON_BASE		(ERXFCON_RUNTEN | ERXFCON_UCEN | ERXFCON_BCEN)

/* MACON2: DEFER, PADCFG=101 (auto VLAN pad), TXCRCEN, reserved bit 1 */
#define MACON2_DEFER		BIT(14)
#define MACON2_PADCFG_AUTO	(0x5 << 5)
#define MACON2_TXCRCEN		BIT(4)
#define MACON2_RSV1		BIT(1)
#define MACON2_FULDPX		BIT(0)
#define MACON2_DEFAULT		(MACON2_DEFER | MACON2_PADCFG_AUTO | \
				 MACON2_TXCRCEN | MACON2_RSV1)

#define MABBIPG_FULL		0x15
#define MABBIPG_HALF		0x12
#define MACLCON_DEFAULT		0x370f

/* MICMD, MISTAT, MIREGADR */
#define MICMD_MIIRD		BIT(0)
#define MISTAT_BUSY		BIT(0)
#define MIREGADR_R8		BIT(8)

/* EIDLED */
#define EIDLED_DEVID		GENMASK(7, 5)
#define EIDLED_REVID		GENMASK(4, 0)
#define ENC_DEVID		1

/* PHY registers (MII management through MIREGADR/MICMD/MIRD/MIWR) */
#define PHCON1			0x00
#define PHSTAT1			0x01
#define PHANA			0x04
#define PHANLPA			0x05
#define PHANE			0x06
#define PHCON2			0x11
#define PHSTAT2			0x1b
#define PHSTAT3			0x1f

#define PHCON1_PRST		BIT(15)
#define PHCON1_SPD100		BIT(13)
#define PHCON1_ANEN		BIT(12)
#define PHCON1_RENEG		BIT(9)
#define PHCON1_PFULDPX		BIT(8)
#define PHSTAT1_ANDONE		BIT(5)
#define PHSTAT1_LLSTAT		BIT(2)
#define PHANA_DEFAULT		0x05e1	/* pause, 10/100 half/full, 802.3 */
#define PHANA_AD100FD		BIT(8)
#define PHANA_AD100		BIT(7)
#define PHANA_AD10FD		BIT(6)
#define PHANA_AD10		BIT(5)
#define PHANA_ADPAUS		BIT(10)
#define PHSTAT3_FULL		BIT(4)
#define PHSTAT3_100		BIT(3)
#define PHSTAT3_10		BIT(2)

/* Receive status vector: bits 16..47 as a 32-bit word (bit n -> n - 16) */
#define RSV_CRCERR		BIT(20 - 16)
#define RSV_LENCHKERR		BIT(21 - 16)
#define RSV_RXOK		BIT(23 - 16)
#define RSV_MCAST		BIT(24 - 16)
#define RSV_BCAST		BIT(25 - 16)
#define ENC_RSV_LEN		6
#define ENC_RX_HDR_LEN		(2 + ENC_RSV_LEN)

/* SRAM layout (24 KiB): one TX buffer at 0x0000 exactly as big as a
 * 1518-byte VLAN frame without FCS, the rest is the RX ring.  The
 * general purpose write pointer wraps from ERXST - 1 to 0x0000 (DS
 * Eq. 3-1), so a frame written with filler up to the end of the TX
 * buffer leaves EGPWRPT at the start of the buffer again: the next
 * frame needs no WGPWRPT.
 */
#define ENC_SRAM_END		0x5fff
#define ENC_TX_START		0x0000
#define ENC_TX_SIZE		VLAN_ETH_FRAME_LEN			/* 1518 */
#define ENC_RX_START		(ENC_TX_START + ENC_TX_SIZE)		/* 0x05ee */
#define ENC_RX_SIZE		(ENC_SRAM_END + 1 - ENC_RX_START)
/* The space of a frame that arrived alone is given back (ERXTAIL
 * written) once this much is held back, not after every frame: such a
 * frame costs one transaction less, and a burst still finds three
 * quarters of the free ring.  A batch of several frames, or one that
 * leaves frames behind, gives its space back at once.
 */
#define ENC_RX_TAIL_LAZY	(ENC_RX_SIZE / 4)
static_assert(ENC_RX_TAIL_LAZY * 4 <= ENC_RX_SIZE);
#define ENC_TX_PAD_MAX		32	/* filler is cheaper than a WGPWRPT */
#define ENC_PTR_UNKNOWN		0xffff
#define ENC_UDA_OFF_ST		0x6000	/* park the user area outside SRAM */
#define ENC_UDA_OFF_ND		0x6001

#define ENC_MAX_FRAME		(VLAN_ETH_FRAME_LEN + ETH_FCS_LEN)	/* 1522 */
#define ENC_MAX_TX		VLAN_ETH_FRAME_LEN			/* 1518 */

/* Bus sizing: one RRXDATA burst can take the whole ring.  A transfer
 * must hold the opcode and the largest frame the ring stores with the
 * header after it (an RX burst reads whole frames, and an impossible
 * byte count is stepped over only once the next header confirms it),
 * and the largest frame sent (opcode and frame in one transfer).
 */
#define ENC_RX_BUF_SIZE		ENC_RX_SIZE
#define ENC_XFER_MIN		(1 + ENC_RX_HDR_LEN + ENC_RX_HDR_LEN + ENC_MAX_FRAME)
static_assert(ENC_XFER_MIN >= 1 + ENC_TX_SIZE);
#define ENC_SFR_XFER_MAX	ENC_SFR_SIZE
#ifdef ENC_TEST_HOOKS
#define ENC_MAX_DEC_CHAIN	28	/* SETPKTDECs leading one WCRU (chain_cmds) */
#else
#define ENC_MAX_DEC_CHAIN	1	/* one SETPKTDEC to a CS frame */
#endif
#define ENC_REL_XFERS		32	/* CS frames in one release message */
/* CS high time between the frames of one message.  The chip's own
 * minimum is not in its datasheet; the ENC28J60's CS disable time is
 * 50 ns.  Without it the SPI core would wait its default 10 us.
 */
#define ENC_CS_HIGH_NS		50

/* Everything the SPI controller may DMA to or from: kmalloc'ed, each
 * buffer on its own DMA cache line (ARCH_DMA_MINALIGN, not the CPU's
 * cache line size, which can be smaller)
 */
struct enc_dma_bufs {
	u8 tx[2 + ENC_SFR_XFER_MAX] __aligned(ARCH_DMA_MINALIGN);
	u8 rx[2 + ENC_SFR_XFER_MAX] __aligned(ARCH_DMA_MINALIGN);
	/* TX-only scratch: the SETPKTDEC(s) + the ERXTAIL write */
	u8 cmd[ENC_MAX_DEC_CHAIN + 4] __aligned(ARCH_DMA_MINALIGN);
};

/* Counters kept by the bus layer (protected by bus_lock) */
struct enc_bus_stats {
	u64 spi_syncs;
	u64 spi_transactions;
	u64 spi_bytes;
	u64 sfr_reads;
	u64 sfr_writes;
	u64 update_bits_offloaded;
	u64 rx_bursts;
};

/* Driver event counters (protected by lock); what the core counts
 * (rtnl_link_stats64, the queue's tx_timeout) is not repeated here
 */
struct enc_drv_stats {
	u64 irqs;
	u64 rx_batches;
	u64 rx_deferrals;
	u64 rx_pkt_full;
	u64 rx_resets;
	u64 rx_rewinds;
	u64 tx_resets;
	u64 link_changes;
	u64 chip_resets;
	u64 chip_lost;
	u64 irq_storms;
	u64 health_checks;	/* status reads of a chip not heard from */
	u64 mii_reads;		/* PHY register reads the driver started */
	u64 mii_writes;		/* and writes */
};

/* netdev statistics, readable from atomic context */
struct enc_net_stats {
	u64_stats_t rx_packets;
	u64_stats_t rx_bytes;
	u64_stats_t rx_errors;
	u64_stats_t rx_dropped;
	u64_stats_t rx_over_errors;
	u64_stats_t rx_crc_errors;
	u64_stats_t rx_length_errors;
	u64_stats_t multicast;
	u64_stats_t tx_packets;
	u64_stats_t tx_bytes;
	u64_stats_t tx_errors;
	u64_stats_t tx_dropped;
	u64_stats_t tx_aborted_errors;
	u64_stats_t tx_carrier_errors;
	struct u64_stats_sync syncp;
};

enum {
	ENC_TX_TIMEOUT,
};

struct enc_priv {
	struct net_device *ndev;
	struct spi_device *spi;
	struct regmap *map;
	u32 msg_enable;

	/* Bus layer: serialises every SPI message and the DMA buffers */
	struct mutex bus_lock;
	struct enc_dma_bufs *bufs;
	struct enc_bus_stats bstats;
	struct spi_transfer rel_xfers[ENC_REL_XFERS];	/* enc_rx_release() */

	/* Device state: held by the IRQ thread, the work items and the
	 * ethtool/ndo paths that talk to the chip.  Lock order:
	 * lock -> regmap lock -> bus_lock.
	 */
	struct mutex lock;
	u32 rx_burst_max;	/* bytes an RX burst reads (one transfer) */
	u8 *rx_buf;		/* 1 + rx_burst_max: RRXDATA answer */
	u8 *rx_cmd;		/* 1 + rx_burst_max: RRXDATA, zeros */
	u8 *tx_buf;		/* 1 + ENC_TX_SIZE: WGPDATA + frame + pad */
	u16 rx_rdpt;		/* where ERXRDPT points (next frame) */
	u16 rx_tail;		/* what ERXTAIL holds */
	u16 eie;		/* enabled interrupt sources while up */
	bool rx_deferred;	/* PKTIE masked, rx_work drains the ring */
	/* open has set the chip up and stop has not begun: what the IRQ
	 * thread and the work items test, not netif_running(), which is
	 * already true while ndo_open runs (and may yet fail)
	 */
	bool up;
	bool recovering;	/* chip state lost: reset_work restores it */
	bool tx_held;		/* restored: reset_work settles the carrier
				 * before the TX slot is used again
				 */
	bool irq_polled;	/* INT stuck: the IRQ is off, poll_work polls */
	unsigned long heard;	/* jiffies: a status read found it configured */
	unsigned int idle_irqs;	/* interrupts in a row with nothing to do */
	unsigned int polls;
	bool tx_inflight;	/* SETTXRTS sent, completion not seen yet */
	bool tx_irq_armed;	/* TXIE enabled: waiting for a slow TX */
	unsigned int tx_len;
	u64 tx_wire_end;	/* ktime_get_ns() by which the frame in
				 * flight has left the wire in the usual
				 * case (tx_work only)
				 */
	bool link_10;		/* the link is up at 10 Mbit/s (priv->lock) */
	u16 tx_wrpt;		/* where EGPWRPT points, or ENC_PTR_UNKNOWN */
	u16 tx_etxlen;		/* ETXLEN in the chip, 0 = unknown */
	bool irq_edge;
	unsigned long irq_trigger;	/* IRQF_TRIGGER_* asked at request */
	unsigned int rx_stall;
	u8 revid;
	struct enc_drv_stats dstats;

	struct sk_buff *tx_skb;	/* queued by ndo_start_xmit, taken by tx_work */
	unsigned long flags;
	struct work_struct rx_work;
	struct work_struct tx_work;
	struct work_struct rx_mode_work;
	struct delayed_work reset_work;
	struct delayed_work poll_work;
	struct delayed_work health_work;

	struct enc_net_stats nstats;

#ifdef ENC_TEST_HOOKS
	/* debugfs fault injection: TX starts to swallow (watchdog test) */
	u32 inject_tx_hang;
	u32 inject_open_fail;
	u32 inject_restore_delay_ms;
#endif
};

/* enc424j600-bus.c: raw SPI and the regmap bus */
struct regmap *enc_regmap_init(struct enc_priv *priv);
int enc_cmd(struct enc_priv *priv, u8 op);
int enc_sfr_read(struct enc_priv *priv, u8 addr, void *buf, size_t len);
int enc_sfr_write(struct enc_priv *priv, u8 addr, const void *buf, size_t len);
int enc_read16(struct enc_priv *priv, u8 addr, u16 *val);
int enc_write16(struct enc_priv *priv, u8 addr, u16 val);
int enc_ptr_write(struct enc_priv *priv, u8 op, u16 addr);
int enc_rx_read(struct enc_priv *priv, size_t len);
int enc_rx_release(struct enc_priv *priv, unsigned int frames, u16 tail,
		   bool set_tail);
int enc_tx_write(struct enc_priv *priv, const void *data, unsigned int len,
		 unsigned int pad);
int enc_tx_set_len(struct enc_priv *priv, unsigned int len);

/* enc424j600-main.c */
int enc_phy_read(struct enc_priv *priv, u8 reg, u16 *val);
int enc_phy_write(struct enc_priv *priv, u8 reg, u16 val);

/* enc424j600-ethtool.c */
extern const struct ethtool_ops enc_ethtool_ops;

#endif /* _ENC424J600_H */
