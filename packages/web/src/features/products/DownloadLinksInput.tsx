import { ActionIcon, Button, Group, Input, Select, Stack, TextInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { DOWNLOAD_LINK_TYPES } from '@lm/contract/product';
import type { ProductFormValues } from './product-form-values.ts';

/** The product's download links: a type (mac, win, offline) and a URL each. */
export function DownloadLinksInput({ form }: { form: UseFormReturnType<ProductFormValues> }) {
  const { t } = useTranslation();
  return (
    <Input.Wrapper label={t('catalogue.product.downloadLinks')}>
      <Stack gap="xs" mt={4}>
        {form.values.downloadLinks.map((_link, index) => (
          <Group key={index} align="flex-start" wrap="nowrap">
            <Select
              aria-label={t('catalogue.product.linkType')}
              w={130}
              allowDeselect={false}
              data={DOWNLOAD_LINK_TYPES.map((type) => ({ value: type, label: t(`catalogue.product.linkTypes.${type}`) }))}
              {...form.getInputProps(`downloadLinks.${index}.type`)}
            />
            <TextInput style={{ flex: 1 }} type="url" aria-label={t('catalogue.product.linkUrl')} placeholder="https://" {...form.getInputProps(`downloadLinks.${index}.url`)} />
            <ActionIcon variant="subtle" color="red" mt={6} onClick={() => form.removeListItem('downloadLinks', index)} aria-label={t('common.delete')}>
              <IconTrash size={16} />
            </ActionIcon>
          </Group>
        ))}
        <Group>
          <Button variant="light" size="xs" leftSection={<IconPlus size={14} />} onClick={() => form.insertListItem('downloadLinks', { type: 'win', url: '' })}>
            {t('catalogue.product.addLink')}
          </Button>
        </Group>
      </Stack>
    </Input.Wrapper>
  );
}
