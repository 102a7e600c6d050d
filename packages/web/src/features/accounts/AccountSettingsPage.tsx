import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function AccountSettingsPage() {
  return <FeaturePending titleKey="pages.accountSettings" />;
}
